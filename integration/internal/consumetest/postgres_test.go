package consumetest

import "testing"

// TestPostgres: a server of the test's own starts, serves a Store, stops and starts again
// with its data.
func TestPostgres(t *testing.T) {
	p := StartPostgres(t)
	s := p.Store(t)
	if _, err := s.DB.Exec(s.Insert(), "k1", 1); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if err := s.DB.Ping(); err == nil {
		t.Fatal("the server answers after Stop")
	}
	p.Start()
	if rows, _ := s.Effects(t); rows != 1 {
		t.Errorf("%d rows after a restart, want 1", rows)
	}
}
