// Package dataplane is idgen-server's data plane: the IDService's calls (Next, List,
// Range, Decode, DescribeTag, ListTags, Status) over gRPC, gRPC-Web and Connect,
// grpc.health.v1, reflection and Leaf's plain-text paths, with the HTTP edge in front of
// them (connection cap, read buffers, CORS, gRPC-Web's text mode, the token checked
// before a body is read, the request size limit, the loopback Host check).
//
// It serves the tags a [Backend] hands it and owns none of them, so the server that
// builds the tags, leases and stores (package server) wires it in and the control plane
// (the console) uses the same tags without it.
package dataplane
