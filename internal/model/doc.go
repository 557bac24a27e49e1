// Package model is the engine's edge to the model: the provider registry, the model catalog
// and a Responses API client speaking HTTPS + SSE on net/http (no SDK).
//
// How the engine uses it:
//
//	c, err := model.NewClient(model.ClientOptions{Provider: p, ...})
//	s, err := c.Stream(ctx, prompt, func(r modelstream.RetryInfo) {
//		// emit stream_error "Reconnecting... r.Attempt/r.Max"
//	})
//	defer s.Close()
//	for {
//		ev, err := s.Next(ctx)
//		if err == io.EOF { break }      // after Completed
//		if err != nil { ... }           // *model.Error, classified (see errors.go)
//		switch ev := ev.(type) { case modelstream.OutputTextDelta: ... }
//	}
//
// Stream takes the retry observer as a third argument (the contracts page lists
// Stream(ctx, Prompt); the observer is the "callback" it mentions). Next takes a context so an
// interrupt can stop a read that is waiting on the network.
//
// Retries (matched against Codex 0.169 on the scripted server): request-level retries (5xx
// and transport errors, never 429, silent) happen inside every connect; stream-level retries
// (a cut stream, an idle timeout, a response.failed that is not fatal, a 500/5xx or
// transport failure that outlived the request retries, a 429 carrying Retry-After) happen
// inside Stream (for the first connect) and Next, each reported with RetryInfo.Stream set. Before each retry the
// observer is called. After a stream retry the events start again from a fresh response, so
// the engine should drop partial state of items that were not yet OutputItemDone
// (RetryInfo.Restarted says so).
package model
