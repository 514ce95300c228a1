package client

// The service's fixed limits that a caller can check before it sends:
// the emulator enforces them, and the provider refuses values past them at
// plan, from this one table, so that the two cannot drift apart. Lengths
// are in bytes of UTF-8, as the service counts them.
const (
	// MaxNameBytes bounds every name: of a policy, a private key tag, a
	// webhook endpoint, an OAuth provider, the organization.
	MaxNameBytes = 256
	// MaxWebhookURLBytes bounds a webhook endpoint's url.
	MaxWebhookURLBytes = 2048
)
