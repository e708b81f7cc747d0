-- name: CreateOrder :exec
INSERT INTO orders (id, no, session) VALUES ($1, $2, $3);

-- name: GetOrder :one
SELECT id, no, session FROM orders WHERE id = $1;

-- name: GetOrderByNo :one
SELECT id, no, session FROM orders WHERE no = $1;

-- name: ListOrders :many
SELECT id, no, session FROM orders WHERE id = ANY(sqlc.arg(ids)::user_id[]) ORDER BY id;

-- name: ListOrdersBySession :many
SELECT id, no, session FROM orders WHERE session = ANY(sqlc.arg(sessions)::session_id[]) ORDER BY id;
