package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// LayerVersion is the version string the app-server reports for a config
// layer (and checks against expectedVersion before writing): "sha256:" and
// the hex digest of the layer's tree as compact JSON with sorted keys,
// which is how Codex computes it.
func LayerVersion(data map[string]any) string {
	var b bytes.Buffer
	writeJSON(&b, data)
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writeJSON writes a TOML tree as serde_json would: sorted keys, no
// spaces, no HTML escaping, floats always with a fraction or exponent.
func writeJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			writeJSON(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case string:
		writeJSONString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(jsonFloat(x))
	case time.Time:
		writeJSONString(b, x.Format(time.RFC3339Nano))
	case fmt.Stringer: // local dates and times
		writeJSONString(b, x.String())
	case nil:
		b.WriteString("null")
	default:
		writeJSONString(b, fmt.Sprint(x))
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode adds a newline
}

func jsonFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e16 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	return strings.Replace(s, "e+", "e", 1)
}
