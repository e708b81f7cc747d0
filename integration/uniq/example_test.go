package uniq_test

import (
	"database/sql"
	"errors"
	"fmt"
	"log"

	"github.com/idgen/idgen/runtime/uniq"
	_ "modernc.org/sqlite"
)

// createTwice inserts the same email twice into an in-memory SQLite database and returns
// the second insert's error, as a repository would, wrapped.
func createTwice() error {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // each connection to :memory: is its own database
	if _, err := db.Exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE)`); err != nil {
		log.Fatal(err)
	}
	for range 2 {
		if _, err := db.Exec(`INSERT INTO users (email) VALUES ('al@example.com')`); err != nil {
			return fmt.Errorf("create user: %w", err)
		}
	}
	return nil
}

func Example() {
	err := uniq.Wrap(createTwice())
	fmt.Println(err)
	fmt.Println(errors.Is(err, uniq.ErrDuplicate))
	// Output:
	// uniq: duplicate key: unique constraint on table "users" (email)
	// true
}

func ExampleAs() {
	err := createTwice()
	if v, ok := uniq.As(err); ok {
		fmt.Println(v.Driver, v.Table, v.Columns, v.PrimaryKey)
	}
	// Output:
	// sqlite users [email] false
}

func ExampleIs() {
	err := createTwice()
	fmt.Println(uniq.Is(err), uniq.Is(errors.New("UNIQUE constraint failed: users.email")))
	// Output:
	// true false
}

func ExampleWrap() {
	err := uniq.Wrap(createTwice())
	var dup *uniq.DuplicateError
	if errors.As(err, &dup) {
		fmt.Printf("%s %q %v\n", dup.Driver, dup.Table, dup.Columns)
	}
	fmt.Println(uniq.Wrap(sql.ErrNoRows) == sql.ErrNoRows, uniq.Wrap(nil) == nil)
	// Output:
	// sqlite "users" [email]
	// true true
}
