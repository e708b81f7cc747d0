CREATE TABLE orders (
    id      bigint PRIMARY KEY,
    no      text NOT NULL UNIQUE,
    session text NOT NULL
);
