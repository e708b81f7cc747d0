package idgorm_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Shipment is a consumer's effect: no unique index on MsgID, so only the ledger keeps a
// message from shipping twice.
type Shipment struct {
	ID    int64  `gorm:"primaryKey" idgen:"snowflake"`
	MsgID string `gorm:"size:64;index"`
}

func TestOnceTx(t *testing.T) {
	for _, e := range databases(t, "gormplugin_oncetx") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			if err := db.AutoMigrate(&Shipment{}); err != nil {
				t.Fatal(err)
			}
			dialect := map[string]sqldb.Dialect{"sqlite": sqldb.SQLite, "postgres": sqldb.Postgres, "mysql": sqldb.MySQL}[e.name]
			dl, err := ledger.New(dialect, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, _ := db.DB()
			if err := dl.CreateTable(ctx(t), sqlDB); err != nil {
				t.Fatal(err)
			}
			ship := func(msg string) func(tx *gorm.DB) error {
				return func(tx *gorm.DB) error { return tx.Create(&Shipment{MsgID: msg}).Error }
			}
			count := func(msg string) (n int64) {
				db.Model(&Shipment{}).Where("msg_id = ?", msg).Count(&n)
				return n
			}
			for i, want := range []bool{true, false} {
				if ran, err := idgorm.OnceTx(db, dl, "s1", ship("s1")); err != nil || ran != want {
					t.Fatalf("delivery %d: ran=%v %v", i, ran, err)
				}
			}
			boom := errors.New("boom")
			if ran, err := idgorm.OnceTx(db, dl, "s2", func(tx *gorm.DB) error { ship("s2")(tx); return boom }); ran || !errors.Is(err, boom) {
				t.Fatalf("failing work: ran=%v %v", ran, err)
			}
			if ran, err := idgorm.OnceTx(db, dl, "s2", ship("s2")); !ran || err != nil {
				t.Fatalf("redelivery after a failure: ran=%v %v", ran, err)
			}
			var ran atomic.Int64
			var wg sync.WaitGroup
			for i := range 40 {
				wg.Go(func() {
					msg := fmt.Sprint("c", i%4)
					r, err := idgorm.OnceTx(db, dl, msg, ship(msg))
					if err != nil {
						t.Error(err)
					}
					if r {
						ran.Add(1)
					}
				})
			}
			wg.Wait()
			if ran.Load() != 4 {
				t.Errorf("%d of 40 deliveries of 4 messages ran, want 4", ran.Load())
			}
			for _, msg := range []string{"s1", "s2", "c0", "c1", "c2", "c3"} {
				if n := count(msg); n != 1 {
					t.Errorf("message %s shipped %d times", msg, n)
				}
			}
		})
	}
}
