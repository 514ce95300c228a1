package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// IdentityError is a failed identity check: the service did not confirm
// that the API key belongs to a user of the organization. It names the
// base URL, organization and key the check was made with, which are what
// a user has to correct.
type IdentityError struct {
	BaseURL        string
	OrganizationID string
	PublicKey      string
	Err            error
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("checking API key %s for organization %s at %s: %v", e.PublicKey, e.OrganizationID, e.BaseURL, e.Err)
}

func (e *IdentityError) Unwrap() error { return e.Err }

// identityCheck is the one whoami a client with Config.CheckIdentity makes
// for its organization, started by StartIdentityCheck or by the first
// request, whichever comes first.
type identityCheck struct {
	orgID string // the configured organization, also for WithOrganization's copies
	once  sync.Once
	done  chan struct{}
	who   *WhoamiResponse
	err   error // an *IdentityError
}

// StartIdentityCheck starts the identity check in the background, if the
// client makes one and it has not started yet. ctx carries the logger;
// its cancellation does not stop the check, which other calls may wait for.
func (c *Client) StartIdentityCheck(ctx context.Context) {
	if c.identity == nil {
		return
	}
	// The check retries as the client does, even when a read made ahead
	// of need (SingleAttempt) is what starts it.
	ctx = context.WithValue(context.WithoutCancel(ctx), singleAttemptKey{}, false)
	c.identity.once.Do(func() {
		go func() {
			defer close(c.identity.done)
			c.identity.who, c.identity.err = c.checkIdentity(ctx)
		}()
	})
}

// Identity waits for the identity check (starting it if needed) and
// returns who the key is. A client without Config.CheckIdentity asks the
// service now.
func (c *Client) Identity(ctx context.Context) (*WhoamiResponse, error) {
	if c.identity == nil {
		return c.checkIdentity(ctx)
	}
	c.StartIdentityCheck(ctx)
	select {
	case <-c.identity.done:
		return c.identity.who, c.identity.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkIdentity is whoami for the configured organization, with the usual
// retries, sent by a copy of the client without the gate: the check is
// what the gate waits for.
func (c *Client) checkIdentity(ctx context.Context) (*WhoamiResponse, error) {
	ungated := *c
	ungated.identity = nil
	if c.identity != nil {
		ungated.orgID = c.identity.orgID
	}
	who, err := ungated.Whoami(ctx, WhoamiRequest{})
	if err != nil {
		return nil, &IdentityError{BaseURL: c.baseURL.String(), OrganizationID: ungated.orgID, PublicKey: c.key.PublicKeyHex(), Err: err}
	}
	return who, nil
}

// IdentityVerified waits for the identity check and returns its failure,
// or nil when it passed, is not made, or ctx ended first. A request's
// caller gets that failure rather than whatever the request met, because
// it says what to fix; the request was sent beside the check, so the wait
// costs no round trip of its own.
func (c *Client) IdentityVerified(ctx context.Context) error {
	if c.identity == nil {
		return nil
	}
	_, err := c.Identity(ctx)
	var idErr *IdentityError
	if errors.As(err, &idErr) {
		return err
	}
	return nil
}

// identityFailed is the check's failure once it is known, without waiting.
func (c *Client) identityFailed() error {
	if c.identity == nil {
		return nil
	}
	select {
	case <-c.identity.done:
		return c.identity.err
	default:
		return nil
	}
}
