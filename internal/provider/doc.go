// Package provider implements the Terraform provider for the custody service.
//
// It decides nothing itself: policies are decided by package policyset,
// whose words (outcome, verdict, decision, consensus, approval) it keeps,
// and it talks to the service only through package client, whose typed
// errors it reports (LostAnswerError, ConsensusNeededError).
//
// The batcher (batch_gather.go, batch_run.go) has words of its own, one
// idea each:
//   - a wave is the operations Terraform runs at the same time (up to
//     -parallelism);
//   - a batch is operations of one kind that go out as one activity; the
//     batcher gathers them;
//   - an operation or a batch is sent when it leaves the provider, and
//     submitted by the client (the request, and the wait for the
//     activity);
//   - an operation goes alone when it is sent as an activity of its own
//     item: where batching is off, where a batch would save no approval
//     (sendsAlone), or when its batch is split;
//   - a batch is split when the service refused it for what one item may
//     have caused alone (splitsBatch): whoever sent the batch then sends
//     each member alone, so that only that item fails, with its own error.
package provider
