package worker_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/idgen/idgen/runtime/worker"
)

// A 10-bit worker field holds IDs 0 to 1023.
const maxWorker = 1<<10 - 1

func ExampleStatic() {
	src, err := worker.Static(7, maxWorker)
	if err != nil {
		fmt.Println(err)
		return
	}
	id, _ := src.WorkerID(context.Background())
	fmt.Println(id)

	_, err = worker.Static(1024, maxWorker)
	fmt.Println(err)
	// Output:
	// 7
	// worker: worker ID 1024 from static out of range [0, 1023]
}

func ExampleEnv() {
	os.Setenv(worker.EnvVar, "42")
	defer os.Unsetenv(worker.EnvVar)

	src, err := worker.Env("", maxWorker) // "" reads IDGEN_WORKER_ID
	if err != nil {
		fmt.Println(err)
		return
	}
	id, _ := src.WorkerID(context.Background())
	fmt.Println(id)

	_, err = worker.Env("APP_WORKER_ID", maxWorker)
	fmt.Println(errors.Is(err, worker.ErrNotSet), err)
	// Output:
	// 42
	// true worker: environment variable APP_WORKER_ID is not set
}

func ExampleStatefulSet() {
	// In a pod, pass "" to read the hostname, which Kubernetes sets to the pod name.
	src, err := worker.StatefulSet("orders-7", maxWorker)
	if err != nil {
		fmt.Println(err)
		return
	}
	id, _ := src.WorkerID(context.Background())
	fmt.Println(id)

	_, err = worker.StatefulSet("orders", maxWorker)
	var pe *worker.ParseError
	fmt.Println(errors.As(err, &pe), err)
	// Output:
	// 7
	// true worker: cannot parse worker ID from hostname "orders": no decimal ordinal after the last '-': invalid syntax
}
