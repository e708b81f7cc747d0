package codec

import "encoding/json"

// MarshalJSONString returns s as a JSON string, byte for byte what json.Marshal returns
// for it. When s needs no escaping (IDs and business numbers never do) that takes one
// allocation; otherwise it is json.Marshal's work.
func MarshalJSONString(s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		// json.Marshal escapes control characters, quote, backslash and, for HTML, <, >
		// and &; it also rewrites invalid UTF-8 and escapes U+2028 and U+2029, so any
		// byte outside printable ASCII goes to it.
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return json.Marshal(s)
		}
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}
