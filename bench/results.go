package main

import (
	"encoding/json"
	"os"
)

// Results is everything one suite run measured; results.json keeps it so the table, the
// charts and the README section can be written again without measuring.
type Results struct {
	Date      string  `json:"date"` // UTC, RFC 3339
	Mode      string  `json:"mode"` // "full" or "quick"
	Sizes     Sizes   `json:"sizes"`
	Machine   Machine `json:"machine"`
	Reference string  `json:"reference"` // its --version, or why it was not measured
	// Samples holds every run's figure: workload → subject → metric → one value per run.
	Samples map[string]map[string]map[string][]float64 `json:"samples"`
	Errors  []string                                   `json:"errors,omitempty"`
}

func (r *Results) add(workload, subject string, m Metrics) {
	if r.Samples == nil {
		r.Samples = map[string]map[string]map[string][]float64{}
	}
	if r.Samples[workload] == nil {
		r.Samples[workload] = map[string]map[string][]float64{}
	}
	if r.Samples[workload][subject] == nil {
		r.Samples[workload][subject] = map[string][]float64{}
	}
	for k, v := range m {
		r.Samples[workload][subject][k] = append(r.Samples[workload][subject][k], v)
	}
}

// summary of one metric of one subject in one workload (N == 0 when there is none).
func (r *Results) summary(workload, subject, metric string) Summary {
	return Summarize(r.Samples[workload][subject][metric])
}

func (r *Results) save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func loadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
