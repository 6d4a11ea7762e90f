-- The changes the connector streams, each statement its own transaction unless grouped.
insert into customers values (
    2, 'bob "the" o''builder', -3.10, 1.5e-10, true, '1999-12-31', '2024-02-29 23:59:59.999999',
    '2024-03-01 10:00:00.5+02', 'emoji 😀 and 𝄞', '{"a": [1, 2.50, null], "b": "x"}',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x00ff10'
);
insert into customers (id, name) values (3, null);

begin;
update customers set balance = balance + 1 where id in (1, 2);
delete from customers where id = 3;
insert into orders values (10, 1, 12345678901234567890.0123456789, '2024-01-01 00:00:00.123');
commit;

insert into kinds values
    (1, -32768, 3.4028235e38, 12345678901234567890.000000000000000001, '23:59:59.999', 'ab', '{"a b", "c,d", null}',
     '192.168.0.1/24', '1 year 2 mons 3 days 04:05:06.789'),
    (2, null, -1.5, -0.5, '00:00:00', null, '{}', '::1', '-1 days');

-- A body of 12,800 characters: stored out of line.
insert into documents select 1, 'draft', string_agg(md5(i::text), '') from generate_series(1, 400) as i;

insert into workload_pause values (1);

-- Two sessions, first thing after the restart: this one locks customer 1; the other, a second
-- later, updates it and waits for the lock; this one updates it too and commits first. The log
-- holds this session's update first and the other's last, though the other's statement started
-- first: the replica ends with the other's name, as the source does.
-- another session: select pg_sleep(1);
-- another session: update customers set name = 'the other session' where id = 1;
begin;
select id from customers where id = 1 for update;
select pg_sleep(3);
update customers set name = 'this session' where id = 1;
commit;

-- The body left unchanged: Debezium sends its placeholder, and the replica keeps the body.
update documents set title = 'final' where id = 1;

-- A key change: the connector sends a delete of the old key and a create of the new one.
update customers set id = 20 where id = 2;

insert into customers (id, name) values (5, 'eve');
delete from customers where id = 5;
insert into customers (id, name) values (5, 'eve again');

update orders set amount = 0.0000000001 where order_id = 10;
truncate orders;
insert into orders values (11, 5, 1, null);

-- Schema changes mid-stream. Postgres's connector sends no DDL: each change shows in the
-- schema of the values after it.
alter table orders add column note text;
insert into orders values (12, 5, 2.5, '2024-05-01 12:00:00', 'with a note');
alter table orders alter column customer_id type bigint;
update orders set customer_id = 5000000000 where order_id = 12;
alter table customers alter column balance type numeric(14, 2);
update customers set balance = 123456789012.34 where id = 5;
alter table customers alter column note type varchar(60);
update customers set note = repeat('x', 60) where id = 1;
alter table orders drop column placed_at;
insert into orders values (13, 1, 3, 'after the drop');

insert into workload_end values (1);
