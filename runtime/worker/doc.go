// Package worker tells a snowflake generator which worker ID it runs as: a fixed number, an
// environment variable or a Kubernetes StatefulSet pod ordinal, each read and checked against
// the layout's maximum when the [Source] is built, so a misconfigured process fails at start.
// Fleet-wide leases, which keep worker IDs unique across machines, live in package
// runtime/lease and implement [Source] too.
package worker
