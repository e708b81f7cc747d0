package uniq_test

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/idgen/idgen/runtime/uniq"
)

// pqError stands in for the error lib/pq returns (its *pq.Error has these fields and
// method), so that the examples run without a database: uniq recognises it, pgx's,
// go-sql-driver/mysql's and the SQLite drivers' by their types and codes, and never
// imports a driver.
type pqError struct {
	Code                      string
	Table, Constraint, Detail string
}

func (e *pqError) Error() string    { return "pq: duplicate key value violates unique constraint" }
func (e *pqError) SQLState() string { return e.Code }

// createUser stands for a repository's insert, which wraps the driver's error: here the
// second insert of an email.
func createUser(email string) error {
	err := &pqError{Code: "23505", Table: "users", Constraint: "users_email_key",
		Detail: "Key (email)=(" + email + ") already exists."}
	return fmt.Errorf("create user: %w", err)
}

// A unique-key violation, whatever the driver, becomes a *DuplicateError matching
// ErrDuplicate, so callers test for it without knowing the database.
func Example() {
	err := uniq.Wrap(createUser("al@example.com"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, uniq.ErrDuplicate))
	// Output:
	// uniq: duplicate key: unique constraint "users_email_key" on table "users" (email)
	// true
}

func ExampleAs() {
	if v, ok := uniq.As(createUser("al@example.com")); ok {
		fmt.Println(v.Driver, v.Constraint, v.Table, v.Columns)
	}
	// Output:
	// postgres users_email_key users [email]
}

// Is reads the driver's code, never the message alone: a text that merely looks like a
// violation is not one, and another SQLSTATE (23503, a foreign key) is not a duplicate.
func ExampleIs() {
	fmt.Println(uniq.Is(createUser("al@example.com")))
	fmt.Println(uniq.Is(errors.New("UNIQUE constraint failed: users.email")))
	fmt.Println(uniq.Is(&pqError{Code: "23503", Table: "orders"}))
	// Output:
	// true
	// false
	// false
}

// Wrap leaves every other error as it was, nil included, so it can wrap any result.
func ExampleWrap() {
	err := uniq.Wrap(createUser("al@example.com"))
	var dup *uniq.DuplicateError
	if errors.As(err, &dup) {
		fmt.Printf("%s %q %v\n", dup.Driver, dup.Table, dup.Columns)
	}
	fmt.Println(uniq.Wrap(sql.ErrNoRows) == sql.ErrNoRows, uniq.Wrap(nil) == nil)
	// Output:
	// postgres "users" [email]
	// true true
}
