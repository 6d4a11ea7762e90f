-- The tables of the Postgres conformance workload, and the row the connector's snapshot reads.
create table customers (
    id integer primary key,
    name text,
    balance numeric(12, 2),
    ratio double precision,
    active boolean,
    born date,
    created_at timestamp(6),
    seen_at timestamptz,
    note varchar(40),
    profile jsonb,
    token uuid,
    photo bytea
);

-- REPLICA IDENTITY FULL: updates and deletes carry the whole old row.
create table orders (
    order_id bigint primary key,
    customer_id integer,
    amount numeric(38, 10),
    placed_at timestamp(3)
);
alter table orders replica identity full;

-- REPLICA IDENTITY DEFAULT, and a body stored out of line (TOAST) uncompressed: an update that
-- leaves it unchanged does not send it (Debezium sends its placeholder).
create table documents (
    id integer primary key,
    title text,
    body text
);
alter table documents alter column body set storage external;

-- Types beyond the common ones, each with an edge value.
create table kinds (
    id integer primary key,
    small smallint,
    single real,
    exact numeric,
    clock time(3),
    code char(4),
    tags text[],
    address inet,
    span interval
);

-- Written midway: the producer crashes when its change arrives and starts again, sending that
-- last batch again (at-least-once). Written last: once its change arrives, all before it has.
create table workload_pause (id integer primary key);
create table workload_end (id integer primary key);

insert into customers (id, name, balance) values (1, 'ann', 10.50);
