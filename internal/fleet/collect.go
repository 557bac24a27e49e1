package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Result is one line of a run's summary.jsonl.
type Result struct {
	ID              string  `json:"id"`
	State           State   `json:"state"`
	ExitCode        *int    `json:"exit_code"`
	InputTokens     int64   `json:"input_tokens"`
	OutputTokens    int64   `json:"output_tokens"`
	DiffBytes       int64   `json:"diff_bytes"`
	DiffFiles       int     `json:"diff_files"`
	DurationSeconds float64 `json:"duration_seconds"`
	JobID           string  `json:"job_id"`
	Error           string  `json:"error,omitempty"`
}

// SummaryFile is the name of the summary collect writes in the run's folder.
const SummaryFile = "summary.jsonl"

// Collect makes the results of views and writes them as DIR/<run-id>/summary.jsonl.
func Collect(r *Run, views []TaskView) ([]Result, error) {
	results := make([]Result, len(views))
	var buf bytes.Buffer
	for k, v := range views {
		res := Result{ID: v.ID, State: v.State, JobID: v.JobID}
		if st := v.Status; st != nil && st.Submission == v.Submission {
			res.ExitCode, res.Error = st.ExitCode, st.Error
			if st.Usage != nil {
				res.InputTokens, res.OutputTokens = st.Usage.InputTokens, st.Usage.OutputTokens
			}
			if st.Finished != nil {
				res.DurationSeconds = st.Finished.Sub(st.Started).Seconds()
			}
		}
		if diff, err := r.store.Read(r.taskKey(v.Index, DiffFile)); err == nil {
			res.DiffBytes = int64(len(diff))
			res.DiffFiles = bytes.Count(diff, []byte("diff --git "))
		}
		results[k] = res
		line, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		buf.Write(append(line, '\n'))
	}
	return results, r.store.Write(key(r.ID, SummaryFile), buf.Bytes())
}

// PrintResults writes results as a table.
func PrintResults(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tEXIT\tTOKENS IN\tTOKENS OUT\tDIFF FILES\tDIFF BYTES\tSECONDS\tJOB")
	for _, r := range results {
		exit := "-"
		if r.ExitCode != nil {
			exit = fmt.Sprint(*r.ExitCode)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%.1f\t%s\n", r.ID, r.State, exit,
			r.InputTokens, r.OutputTokens, r.DiffFiles, r.DiffBytes, r.DurationSeconds, r.JobID)
	}
	return tw.Flush()
}

// PrintStatus writes views as a table and a count line ("3 succeeded, 1 running").
func PrintStatus(w io.Writer, r *Run, views []TaskView) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tEXIT\tJOB")
	for _, v := range views {
		exit := "-"
		if v.Status != nil && v.Status.Submission == v.Submission && v.Status.ExitCode != nil {
			exit = fmt.Sprint(*v.Status.ExitCode)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.ID, v.State, exit, v.JobID)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "run %s (%s): %s\n", r.ID, r.Engine, CountLine(views))
	return err
}

// CountLine is "4 succeeded" or "2 succeeded, 1 failed, 1 running", states in a fixed order.
func CountLine(views []TaskView) string {
	c := Counts(views)
	var out string
	for _, s := range []State{Succeeded, Failed, Cancelled, Running, Pending, Unknown} {
		if c[s] == 0 {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%d %s", c[s], s)
	}
	return out
}
