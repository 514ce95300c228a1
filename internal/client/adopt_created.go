package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// A completed activity is adopted only when it is a create whose object
// still exists. Adopting a completed update or delete would report an
// effect that a later change may have undone (a rename A→B→A→B would
// adopt the first A→B and never converge), and the next refresh shows
// their effect anyway. Adopting a completed create whose object is gone
// (destroyed, deleted outside Terraform, or replaced) would report
// "Creation complete" for an id that no longer exists, every apply.

// createdReaders read back the object a completed create made, by the id
// its result names (at position pos of a batch): found is false when the
// service no longer holds it. An operation not listed here has no
// completed activity adopted, only waiting ones.
var createdReaders = map[string]createdReader{
	OpCreatePolicies.Name: readCreated(OpCreatePolicies, func(r CreatePoliciesResult) []string { return r.PolicyIDs },
		func(ctx context.Context, c *Client, _ *Activity, id string) (bool, error) {
			_, err := c.GetPolicy(ctx, GetPolicyRequest{PolicyID: id})
			if errors.Is(err, ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		}),
	OpCreateOauthProviders.Name: readCreated(OpCreateOauthProviders, func(r ProviderIDsResult) []string { return r.ProviderIDs },
		func(ctx context.Context, c *Client, act *Activity, id string) (bool, error) {
			var intent struct {
				UserID string `json:"userId"`
			}
			if err := json.Unmarshal(act.Intent[OpCreateOauthProviders.IntentKey], &intent); err != nil {
				return false, fmt.Errorf("%s: activity %s: decoding its intent: %w", OpCreateOauthProviders.Name, act.ID, err)
			}
			got, err := c.GetOauthProviders(ctx, GetOauthProvidersRequest{UserID: intent.UserID})
			return err == nil && slices.ContainsFunc(got.OauthProviders, func(p OauthProvider) bool { return p.ProviderID == id }), err
		}),
	OpCreatePrivateKeyTag.Name: readCreated(OpCreatePrivateKeyTag, func(r CreatePrivateKeyTagResult) []string { return []string{r.PrivateKeyTagID} },
		func(ctx context.Context, c *Client, _ *Activity, id string) (bool, error) {
			got, err := c.ListPrivateKeyTags(ctx, ListPrivateKeyTagsRequest{})
			return err == nil && slices.ContainsFunc(got.PrivateKeyTags, func(t Tag) bool { return t.TagID == id }), err
		}),
	OpCreateWebhookEndpoint.Name: readCreated(OpCreateWebhookEndpoint, func(r WebhookEndpointResult) []string { return []string{r.EndpointID} },
		func(ctx context.Context, c *Client, _ *Activity, id string) (bool, error) {
			got, err := c.ListWebhookEndpoints(ctx, ListWebhookEndpointsRequest{})
			return err == nil && slices.ContainsFunc(got.WebhookEndpoints, func(w WebhookEndpoint) bool { return w.EndpointID == id }), err
		}),
}

// createdReader reads back the object at position pos of what act, a
// completed create, made.
type createdReader func(ctx context.Context, c *Client, act *Activity, pos int) (found bool, err error)

// readCreated is the createdReader of op: it decodes act's result, takes
// from it (ids) the id at pos, and asks has whether the service still
// holds that object. A create of one object names it at position 0.
func readCreated[R any](op Operation, ids func(R) []string,
	has func(ctx context.Context, c *Client, act *Activity, id string) (bool, error),
) createdReader {
	return func(ctx context.Context, c *Client, act *Activity, pos int) (bool, error) {
		var r R
		if err := DecodeResult(op, act, &r); err != nil {
			return false, err
		}
		made := ids(r)
		if pos >= len(made) {
			return false, errNoIDAt(op, act, pos)
		}
		return has(ctx, c, act, made[pos])
	}
}

// adoptable tells whether act, a candidate of op whose intent matches,
// may be adopted: an activity still waiting for approval always, a
// completed one only when it is a create whose object (at pos) is still
// there. It reads the service for a completed create.
func (c *Client) adoptable(ctx context.Context, op Operation, act *Activity, pos int) (bool, error) {
	if act.Status != StatusCompleted {
		return true, nil
	}
	read, ok := createdReaders[op.Name]
	if !ok {
		return false, nil
	}
	found, err := read(ctx, c, act, pos)
	if err != nil {
		return false, &StepError{Step: "reading back the object of " + op.Type + " activity " + act.ID + ", an earlier create that completed after approval", Err: err}
	}
	return found, nil
}

func errNoIDAt(op Operation, act *Activity, pos int) error {
	return fmt.Errorf("%s: activity %s: its result holds no id at position %d", op.Name, act.ID, pos)
}
