-- The MariaDB conformance workload, run once the producers stream: its tables are created here,
-- not before, so that each producer reads their DDL from the binlog (Maxwell's daemon sends no
-- snapshot, and misreads the fractions of time columns it reads from information_schema).
create table customers (
    id int primary key,
    name varchar(10),
    balance decimal(10, 2),
    big_balance decimal(65, 30),
    counter bigint unsigned,
    ratio double,
    score float,
    flags bit(8),
    active tinyint(1),
    born date,
    wakes time(6),
    created_at datetime(6),
    seen_at timestamp(6) null default null,
    made year,
    size enum('s', 'm', 'l'),
    tags set('a', 'b', 'c'),
    note text,
    -- MariaDB's JSON, spelled out: Maxwell 1.22 reads a column declared `json` as MySQL's binary
    -- JSON and stops at its first value (docs/conformance.md).
    profile longtext check (json_valid(profile)),
    photo blob,
    digest binary(4),
    place point
);

create table orders (
    order_id bigint primary key,
    customer_id int,
    amount decimal(12, 4)
);

-- Written midway: the producer crashes when its change arrives and starts again, sending that
-- last batch again (at-least-once). Written last: once its change arrives, all before it has.
create table workload_pause (id int primary key);
create table workload_end (id int primary key);

-- The changes the producers stream, each statement its own transaction unless grouped.
insert into customers (id, name, balance) values (1, 'ann', 10.50);
insert into customers values (
    2, 'bob "o''b"', -3.10, 12345678901234567890123456789012345.123456789012345678901234567890,
    18446744073709551615, 1.5e-10, 5.18, b'10100101', 1, '1999-12-31', '-838:59:58.500000',
    '2024-02-29 23:59:59.999999', '2024-03-01 08:00:00.5', 2155, 'm', 'a,c',
    'emoji 😀 and 𝄞, a tab\tand a quote''', '{"a": [1, 2.50, null], "b": "x"}',
    x'00ff10', x'cafe0001', ST_GeomFromText('POINT(116.397 39.908)')
);
insert into customers (id, name) values (3, null);

begin;
update customers set balance = balance + 1 where id in (1, 2);
delete from customers where id = 3;
insert into orders values (10, 1, 12345678.0123);
commit;

insert into workload_pause values (1);

-- Two sessions, first thing after the restart: this one locks customer 1; the other, a second
-- later, updates it and waits for the lock; this one updates it too and commits first. The log
-- holds this session's update first and the other's last, though the other's statement started
-- first: the replica ends with the other's note, as the source does.
-- another session: do sleep(1);
-- another session: update customers set note = 'the other session' where id = 1;
begin;
select id from customers where id = 1 for update;
do sleep(3);
update customers set note = 'this session' where id = 1;
commit;

-- A key change, then the same row inserted, deleted and inserted again within a second.
update customers set id = 20 where id = 2;
insert into customers (id, name) values (5, 'eve');
delete from customers where id = 5;
insert into customers (id, name) values (5, 'eve again');

update orders set amount = 0.0001 where order_id = 10;
truncate orders;
insert into orders values (11, 5, 1);

-- Schema changes mid-stream, each followed by a value that needs it.
alter table orders add column note varchar(20);
insert into orders values (12, 5, 2.5, 'with a note');
alter table orders modify customer_id bigint;
update orders set customer_id = 5000000000 where order_id = 12;
alter table customers modify balance decimal(14, 2);
update customers set balance = 123456789012.34 where id = 5;
alter table customers modify name varchar(40);
update customers set name = repeat('x', 40) where id = 1;
alter table orders rename column note to remark;
update orders set remark = 'renamed' where order_id = 12;
alter table orders drop column amount;
insert into orders values (13, 1, 'after the drop');
rename table orders to purchases;
insert into purchases values (14, 1, 'renamed table');

insert into workload_end values (1);
