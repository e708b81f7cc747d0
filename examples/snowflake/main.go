// Command snowflake shows the idgen snowflake generator at work: it issues a few IDs,
// reserves a block for a bulk insert and decodes what it made.
//
//	go run ./examples/snowflake [-worker 7] [-n 5] [-layout classic]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/worker"
)

var layouts = map[string]func() snowflake.Layout{
	"classic":   snowflake.Classic,
	"classicdc": snowflake.ClassicDC,
	"sonyflake": snowflake.Sonyflake,
	"jsonsafe":  snowflake.JSONSafe,
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("snowflake: ")
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("snowflake", flag.ContinueOnError)
	workerID := fs.Int64("worker", -1, "worker ID (default: $"+worker.EnvVar+", else 1)")
	n := fs.Int("n", 5, "how many IDs to issue one by one")
	name := fs.String("layout", "classic", "layout: classic, classicdc, sonyflake or jsonsafe")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mk, ok := layouts[*name]
	if !ok {
		return fmt.Errorf("unknown layout %q", *name)
	}
	layout := mk()

	src, err := workerSource(*workerID, layout.MaxWorker())
	if err != nil {
		return err
	}
	id, err := src.WorkerID(context.Background())
	if err != nil {
		return err
	}
	gen, err := snowflake.New(layout, id, snowflake.Options{})
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "layout   %v\n", layout)
	fmt.Fprintf(w, "lifetime until %s, %.0f IDs/s per worker, %d workers\n\n",
		layout.End().UTC().Format(time.DateOnly), layout.IDsPerSecond(), layout.MaxWorker()+1)

	fmt.Fprintf(w, "%-20s  %-24s  %6s  %4s\n", "id", "time (UTC)", "worker", "seq")
	for range *n {
		id, err := gen.Next()
		if err != nil {
			return err
		}
		p, err := layout.Decode(id)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-20d  %-24s  %6d  %4d\n", id, layout.TimeOf(p.Tick).UTC().Format("2006-01-02 15:04:05.000"), p.Worker, p.Seq)
	}

	block, err := gen.NextN(context.Background(), 10000)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nreserved %d IDs for a bulk insert: %d .. %d\n", len(block), block[0], block[len(block)-1])
	return nil
}

// workerSource takes the -worker flag when set, else the environment variable, else 1.
func workerSource(flagID, max int64) (worker.Source, error) {
	if flagID >= 0 {
		return worker.Static(flagID, max)
	}
	if _, ok := os.LookupEnv(worker.EnvVar); ok {
		return worker.Env("", max)
	}
	return worker.Static(1, max)
}
