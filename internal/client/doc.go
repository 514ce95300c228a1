// Package client is the typed Go client of the custody service's public API.
//
// It is the one place that speaks the wire protocol: the submit envelope,
// the API-key stamp (X-Stamp), activity polling, retries and typed errors.
// Mutations are activities, sent to /public/v1/submit/<operation>; reads
// are queries, sent to /public/v1/query/<operation>. It knows nothing of
// Terraform, so that the provider, the emulator's tests and any other tool
// can use it alike.
package client
