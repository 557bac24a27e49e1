package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/gocodex/gocodex/internal/config"
)

// config/read answers the effective configuration (the merged TOML tree, Codex's snake_case
// keys) with where each key came from; config/value/write and config/batchWrite edit the
// user's config.toml in place, keeping its comments and layout.

// ConfigRead answers config/read.
func (a *api) ConfigRead(ctx context.Context, c *Conn, p ConfigReadParams) (ConfigReadResponse, error) {
	return configRead(a.s, p)
}

// ConfigValueWrite answers config/value/write.
func (a *api) ConfigValueWrite(ctx context.Context, c *Conn, p ConfigValueWriteParams) (ConfigWriteResponse, error) {
	return configWrite(a.s, p.FilePath, p.ExpectedVersion, []ConfigEdit{{KeyPath: p.KeyPath, Value: p.Value, MergeStrategy: p.MergeStrategy}})
}

// ConfigBatchWrite answers config/batchWrite.
func (a *api) ConfigBatchWrite(ctx context.Context, c *Conn, p ConfigBatchWriteParams) (ConfigWriteResponse, error) {
	return configWrite(a.s, p.FilePath, p.ExpectedVersion, p.Edits)
}

type layerMeta struct {
	Name    configLayerSource `json:"name"`
	Version string            `json:"version"`
}

type configLayer struct {
	Name     configLayerSource `json:"name"`
	Version  string            `json:"version"`
	Config   map[string]any    `json:"config"`
	Disabled *string           `json:"disabledReason,omitempty"`
}

func configRead(s *Server, p ConfigReadParams) (ConfigReadResponse, error) {
	o := threadOverrides{Cwd: p.Cwd}
	cfg, err := s.loadThreadConfig(o)
	if err != nil {
		return ConfigReadResponse{}, err
	}
	out := ConfigReadResponse{Config: configReadValue(cfg.Effective), Origins: map[string]layerMeta{}}
	for _, l := range cfg.Layers {
		name := layerName(l)
		version := l.Version
		if version == "" {
			version = config.LayerVersion(l.Data)
		}
		for _, k := range flatKeys("", l.Data) {
			out.Origins[k] = layerMeta{Name: name, Version: version}
		}
		if p.IncludeLayers != nil && *p.IncludeLayers {
			data := l.Data
			if data == nil {
				data = map[string]any{}
			}
			out.Layers = append(out.Layers, configLayer{Name: name, Version: version, Config: data})
		}
	}
	// Highest precedence first, as Codex lists them.
	for i, j := 0, len(out.Layers)-1; i < j; i, j = i+1, j-1 {
		out.Layers[i], out.Layers[j] = out.Layers[j], out.Layers[i]
	}
	return out, nil
}

// configWrite applies edits to the user's config.toml (or filePath) in one write.
func configWrite(s *Server, filePath, expected *string, edits []ConfigEdit) (ConfigWriteResponse, error) {
	path := filepath.Join(codexHome(s), "config.toml")
	if filePath != nil && *filePath != "" {
		path = *filePath
	}
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return ConfigWriteResponse{}, internalError(err.Error())
	}
	if expected != nil && *expected != "" {
		if v := fileVersion(src); v != *expected {
			return ConfigWriteResponse{}, InvalidRequest("config version conflict: the file changed since it was read")
		}
	}
	var es []config.Edit
	for _, e := range edits {
		keyPath, err := config.ParseKeyPath(e.KeyPath)
		if err != nil {
			return ConfigWriteResponse{}, InvalidParams("invalid keyPath `" + e.KeyPath + "`: " + err.Error())
		}
		var v any
		if err := json.Unmarshal(e.Value, &v); err != nil {
			return ConfigWriteResponse{}, InvalidParams("invalid value: " + err.Error())
		}
		switch {
		case v == nil:
			es = append(es, config.Remove(keyPath))
		case e.MergeStrategy == "upsert":
			es = append(es, config.Upsert(keyPath, tomlValue(v)))
		default:
			es = append(es, config.Set(keyPath, tomlValue(v)))
		}
	}
	out, err := config.ApplyEdits(src, es...)
	if err != nil {
		return ConfigWriteResponse{}, InvalidRequest(err.Error())
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return ConfigWriteResponse{}, internalError(err.Error())
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return ConfigWriteResponse{}, internalError(err.Error())
	}
	if err := os.Rename(tmp, path); err != nil {
		return ConfigWriteResponse{}, internalError(err.Error())
	}
	return ConfigWriteResponse{Status: "ok", Version: fileVersion(out), FilePath: pathString(path)}, nil
}

// tomlValue turns JSON numbers that are whole into integers, as TOML wants them.
func tomlValue(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case []any:
		for i := range x {
			x[i] = tomlValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = tomlValue(x[k])
		}
	}
	return v
}

// fileVersion is the version a config file's contents answer to (the layer version of
// what it parses to; an empty file has the version of an empty table).
func fileVersion(src []byte) string {
	data := map[string]any{}
	if len(strings.TrimSpace(string(src))) > 0 {
		var m map[string]any
		if err := toml.Unmarshal(src, &m); err == nil && m != nil {
			data = m
		}
	}
	return config.LayerVersion(data)
}
