package dataplane

import (
	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// leafTag returns the name of the tag Leaf's path for kind serves for key. Leaf's
// snowflake path ignores its key, and so does this one when leaf_snowflake_tag is set:
// the key is used only when it names a snowflake tag the grant allows, and any other
// key (unknown, a tag of another kind, a tag the grant does not allow) gets
// leaf_snowflake_tag, so that the answer never tells a token which tags exist.
func (p *Plane) leafTag(g *auth.Grant, kind v1.Kind, key string) string {
	if kind != v1.Kind_KIND_SNOWFLAKE || p.cfg.LeafSnowflakeTag == "" {
		return key
	}
	if t, ok := p.b.Tag(key); ok && t.Kind() == kind && g.Allows(key) {
		return key
	}
	return p.cfg.LeafSnowflakeTag
}
