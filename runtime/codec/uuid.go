package codec

import (
	"encoding/binary"
	"time"
)

const hexDigits = "0123456789abcdef"

// uuidDashes are the offsets of the dashes in the canonical 36-character form.
var uuidDashes = [4]int{8, 13, 18, 23}

// uuidHexAt are the offsets of the 16 hex pairs in the canonical form.
var uuidHexAt = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// AppendUUID appends the canonical lowercase 36-character form of u.
func AppendUUID(dst []byte, u [16]byte) []byte {
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[c>>4], hexDigits[c&15]
		j += 2
	}
	return append(dst, b[:]...)
}

// ParseUUID parses the 36-character form of a UUID. Hex digits may be in either case, as
// RFC 9562 requires of readers; AppendUUID writes lowercase, so the lowercase text is the
// canonical one. Braces, URNs and the 32-digit form are refused: one spelling per ID, up
// to case.
func ParseUUID(typ, s string) ([16]byte, error) {
	var u [16]byte
	if len(s) != 36 {
		return u, Errorf(typ, s, "want a 36-character UUID like 0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d")
	}
	for _, d := range uuidDashes {
		if s[d] != '-' {
			return u, Errorf(typ, s, "want '-' at offset %d", d)
		}
	}
	for j, i := range uuidHexAt {
		hi, lo := unhex(s[i]), unhex(s[i+1])
		if hi > 15 || lo > 15 {
			return u, Errorf(typ, s, "non-hex character at offset %d", i)
		}
		u[j] = hi<<4 | lo
	}
	return u, nil
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 255
}

// UUIDTime returns the time a version 7 UUID carries, to the millisecond, or the zero time
// for other versions.
func UUIDTime(u [16]byte) time.Time {
	if u[6]>>4 != 7 {
		return time.Time{}
	}
	var b [8]byte
	copy(b[2:], u[:6])
	return time.UnixMilli(int64(binary.BigEndian.Uint64(b[:]))).UTC()
}

// UnmarshalJSONString decodes a JSON string without escapes (IDs need none) exactly as
// encoding/json hands it to an UnmarshalJSON method, with no surrounding whitespace,
// reporting null separately.
func UnmarshalJSONString(typ string, b []byte) (s string, null bool, err error) {
	if string(b) == "null" {
		return "", true, nil
	}
	s, err = plainJSONString(typ, b)
	return s, false, err
}
