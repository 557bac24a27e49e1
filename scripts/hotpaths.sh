# The hot-path benchmarks (issue 20), sourced by bench-hotpaths.sh and bench-smoke.sh: one
# "package regexp" pair per line, grouped by what they measure.
HOTPATHS=(
	# SSE decoding: the Responses, Chat and Anthropic streams, from bytes to deltas
	"./internal/model/sse ^BenchmarkParse$"
	"./internal/model ^Benchmark(ClientDeltas|DecodeDelta)$"
	"./internal/model/chat ^Benchmark(ClientDeltas|DecodeChunk)$"
	"./internal/model/anthropic ^BenchmarkClientDeltas$"
	# event fan-out: the thread's queue, JSON-RPC notifications, subscribers, exec's JSONL
	"./agent ^BenchmarkDeltasThroughThread$"
	"./internal/appserver ^BenchmarkFanOut$"
	"./internal/jsonrpc ^Benchmark(EncodeNotification|ConnNotify)$"
	"./internal/execcli ^BenchmarkJSONWriter(Deltas|Item)$"
	# output capture: a command's output read, capped and truncated for the model
	"./internal/process ^Benchmark(CaptureThroughput|FormattedTruncate)$"
	# patch matching: finding and applying 40 hunks
	"./internal/patch ^Benchmark(Apply40Hunks|Verify40Hunks)$"
	# rollout writes and thread listing
	"./internal/rollout ^Benchmark(RecordItem|RecordEvent)$"
	"./internal/rollout ^Benchmark(ListFirstPage|ListFirstPageOneFolder|ListFilteredRare|Latest|Find|Resume10000Items)$"
)
