-- One domain per ID type: sqlc.yaml maps the domain to the Go type, so a parameter cast
-- to an array of it (ANY(sqlc.arg(ids)::user_id[])) is a slice of the typed ID.
CREATE DOMAIN user_id AS bigint;
CREATE DOMAIN session_id AS uuid;

CREATE TABLE orders (
    id      user_id PRIMARY KEY,
    no      text NOT NULL UNIQUE,
    session session_id NOT NULL
);
