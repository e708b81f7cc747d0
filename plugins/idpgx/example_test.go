package idpgx_test

import (
	"context"
	"os"

	"github.com/idgen/idgen/plugins/idpgx"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Every connection of the pool registers the program's typed IDs, so a []UserID is an
// argument in every exec mode, PgBouncer's transaction pooling (QueryExecModeExec or
// QueryExecModeSimpleProtocol) included.
func ExampleRegister() {
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	cfg.AfterConnect = idpgx.Register
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	// rows, err := pool.Query(ctx, "SELECT ... WHERE id = ANY($1)", []models.UserID{a, b})
}
