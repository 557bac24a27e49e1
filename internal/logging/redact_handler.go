package logging

import (
	"context"
	"encoding"
	"fmt"
	"log/slog"
	"reflect"
)

// redactHandler masks secrets in every record before the handler it wraps sees it, so no
// sink (file or stderr) can receive a credential.
type redactHandler struct {
	inner slog.Handler
	// inSecretGroup is set under WithGroup("password") and the like: everything inside is secret.
	inSecretGroup bool
}

func newRedactHandler(inner slog.Handler) *redactHandler { return &redactHandler{inner: inner} }

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, RedactText(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.redactAttr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.redactAttr(a)
	}
	return &redactHandler{inner: h.inner.WithAttrs(clean), inSecretGroup: h.inSecretGroup}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), inSecretGroup: h.inSecretGroup || isSecretKey(name)}
}

// redactAttr masks one attribute: a secret key hides its whole value (a group included),
// a group is searched attribute by attribute, and any other value has its text masked.
func (h *redactHandler) redactAttr(a slog.Attr) slog.Attr {
	// Resolve first: a LogValuer could otherwise hand the sink an unmasked secret.
	a.Value = a.Value.Resolve()
	if h.inSecretGroup || isSecretKey(a.Key) {
		return slog.String(a.Key, Redacted)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, RedactText(a.Value.String()))
	case slog.KindGroup:
		group := a.Value.Group()
		clean := make([]slog.Attr, len(group))
		for i, g := range group {
			clean[i] = h.redactAttr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(clean...)}
	case slog.KindAny:
		// Errors, structs, maps: mask the text the sink would print, and keep the
		// original value when there was nothing to mask.
		text := anyText(a.Value.Any())
		if clean := RedactText(text); clean != text {
			return slog.String(a.Key, clean)
		}
	}
	return a
}

// anyText is how slog's text handler prints a KindAny value.
func anyText(v any) string {
	switch x := v.(type) {
	case error:
		return x.Error()
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		if err != nil {
			return fmt.Sprintf("!ERROR:%v", err)
		}
		return string(b)
	}
	// Byte slices of any named type (json.RawMessage) print as text.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return string(rv.Bytes())
	}
	return fmt.Sprintf("%+v", v)
}
