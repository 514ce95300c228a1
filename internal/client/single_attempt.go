package client

import "context"

// singleAttemptKey marks a context whose requests are sent once, never
// retried (SingleAttempt).
type singleAttemptKey struct{}

// SingleAttempt is ctx for reads made ahead of need (a command's first
// reads, sent when the provider is configured): each is sent once and
// never retried, so that one whose answer does not come at once gives way
// to its first user's own read, with that user's deadline and retries and
// an error that names what the service said.
func SingleAttempt(ctx context.Context) context.Context {
	return context.WithValue(ctx, singleAttemptKey{}, true)
}

// retriesAllowed is false for a SingleAttempt context.
func retriesAllowed(ctx context.Context) bool {
	single, _ := ctx.Value(singleAttemptKey{}).(bool)
	return !single
}
