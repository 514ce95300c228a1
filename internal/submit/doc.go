// Package submit sends the provider's activities: one at a time
// (Activity), or, for the operations the service takes several objects
// of at once, gathered into batches (Runner.Item, the batcher). It imports
// no Terraform package; the provider's resources call it with the
// client's typed submit methods, and the provider block's batching
// settings (internal/provider, provider_batching.go) build its Batcher.
//
// The batcher has words of its own, one idea each:
//   - a wave is the operations Terraform runs at the same time (up to
//     -parallelism);
//   - a batch is operations of one kind that go out as one activity; the
//     batcher gathers them;
//   - an operation or a batch is sent when it leaves the provider, and
//     submitted by the client (the request, and the wait for the
//     activity);
//   - an operation goes alone when it is sent as an activity of its own
//     item: where batching is off, where a batch would save no approval
//     (Runner.sendsAlone, which asks an AloneJudge), or when its batch is
//     split;
//   - a batch is split when the service refused it for what one item may
//     have caused alone (splitsBatch): whoever sent the batch then sends
//     each member alone, so that only that item fails, with its own error.
package submit
