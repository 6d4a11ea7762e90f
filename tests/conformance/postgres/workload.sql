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

-- A key change: the connector sends a delete of the old key and a create of the new one.
update customers set id = 20 where id = 2;

insert into customers (id, name) values (5, 'eve');
delete from customers where id = 5;
insert into customers (id, name) values (5, 'eve again');

update orders set amount = 0.0000000001 where order_id = 10;
truncate orders;
insert into orders values (11, 5, 1, null);

insert into workload_end values (1);
