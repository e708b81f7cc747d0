package tags

import (
	"fmt"
	"math"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protowire"

	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/codec"
)

// MaxAnswerBytes bounds a List answer in protobuf: the receive limit gRPC clients have
// by default (grpc-go, grpc-java, Python's grpcio, grpc-js: 4 MiB). A List whose answer
// could be larger is refused before any ID is drawn, however the tag writes its IDs.
const MaxAnswerBytes = 4 << 20

// listOverhead is the most a ListResponse holds beyond its IDs: the packed ids field's
// tag and length.
const listOverhead = 1 + 10

// answerBytesPerID returns the most bytes one ID adds to t's ListResponse: its varint in
// the packed ids (an ID is never negative: 9 bytes at most) for the int kinds, its text
// (tag, length and bytes) for the text kinds. Every text of a tag has one length, known
// from its kind and prefix.
func (t *Tag) answerBytesPerID() int {
	text := 0
	switch t.kind {
	case v1.Kind_KIND_SEGMENT:
	case v1.Kind_KIND_SNOWFLAKE:
		if t.prefix != "" {
			text = len(t.prefix) + 1 + codec.PrefixedLen
		}
	case v1.Kind_KIND_NUMBER:
		text = t.format.Width()
	case v1.Kind_KIND_UUID7:
		text = 36
	case v1.Kind_KIND_TYPEID:
		text = 26
		if t.prefix != "" {
			text += len(t.prefix) + 1
		}
	}
	n := 0
	switch t.kind {
	case v1.Kind_KIND_SEGMENT, v1.Kind_KIND_SNOWFLAKE, v1.Kind_KIND_NUMBER:
		n = protowire.SizeVarint(math.MaxInt64)
	}
	if text > 0 {
		n += protowire.SizeTag(2) + protowire.SizeBytes(text)
	}
	return n
}

// maxList returns the largest count of a List of t whose answer fits MaxAnswerBytes.
func (t *Tag) maxList() int {
	return (MaxAnswerBytes - listOverhead) / t.answerBytesPerID()
}

// CheckFits refuses a List of n IDs of t whose answer could exceed MaxAnswerBytes, with
// INVALID_ARGUMENT naming the most a call may ask for, before any is drawn.
func CheckFits(t *Tag, n int) error {
	if most := t.maxList(); n > most {
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf(
			"count %d: an answer of tag %q could take %d bytes, more than the %d gRPC clients receive by default; ask for at most %d a call",
			n, t.name, listOverhead+n*t.answerBytesPerID(), MaxAnswerBytes, most))
	}
	return nil
}
