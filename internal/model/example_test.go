package model_test

import (
	"context"
	"fmt"
	"io"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

// A client streaming one scripted response: a cut stream first, then a complete one.
func ExampleClient_Stream() {
	srv, err := testkit.NewStandaloneServer("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	answer := testkit.Events{testkit.Created(), testkit.TextDelta("Hello"), testkit.Completed(testkit.Usage{Input: 3, Output: 1})}
	srv.Enqueue(testkit.Cut(1, answer), testkit.SSE(answer))

	c, err := model.NewClient(model.ClientOptions{
		Provider: model.ProviderInfo{Name: "Mock", BaseURL: srv.BaseURL()},
		APIKey:   "sk-test",
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	s, err := c.Stream(ctx, modelstream.Prompt{Model: "gpt-5.5", PromptCacheKey: "thread-1"}, func(r modelstream.RetryInfo) {
		if r.Stream {
			fmt.Printf("Reconnecting... %d/%d (%v)\n", r.Attempt, r.Max, r.Err)
		}
	})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for {
		ev, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		switch ev := ev.(type) {
		case modelstream.OutputTextDelta:
			fmt.Println("delta:", ev.Delta)
		case modelstream.Completed:
			fmt.Println("completed:", ev.ResponseID, ev.Usage.TotalTokens)
		}
	}
	// Output:
	// Reconnecting... 1/5 (stream disconnected before completion: stream closed before response.completed)
	// delta: Hello
	// completed: resp_mock 4
}
