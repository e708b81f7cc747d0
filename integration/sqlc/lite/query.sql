-- name: CreateOrder :exec
INSERT INTO orders (id, no, session) VALUES (?, ?, ?);

-- name: GetOrder :one
SELECT id, no, session FROM orders WHERE id = ?;

-- name: GetOrderByNo :one
SELECT id, no, session FROM orders WHERE no = ?;

-- name: ListOrders :many
SELECT id, no, session FROM orders WHERE id IN (sqlc.slice(ids)) ORDER BY id;

-- name: ListOrdersBySession :many
SELECT id, no, session FROM orders WHERE session IN (sqlc.slice(sessions)) ORDER BY id;
