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
var createdReaders = map[string]func(ctx context.Context, c *Client, act *Activity, pos int) (found bool, err error){
	OpCreatePolicies.Name: func(ctx context.Context, c *Client, act *Activity, pos int) (bool, error) {
		var r CreatePoliciesResult
		if err := DecodeResult(OpCreatePolicies, act, &r); err != nil {
			return false, err
		}
		if pos >= len(r.PolicyIDs) {
			return false, errNoIDAt(OpCreatePolicies, act, pos)
		}
		_, err := c.GetPolicy(ctx, GetPolicyRequest{PolicyID: r.PolicyIDs[pos]})
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	},
	OpCreateOauthProviders.Name: func(ctx context.Context, c *Client, act *Activity, pos int) (bool, error) {
		var r ProviderIDsResult
		var intent struct {
			UserID string `json:"userId"`
		}
		if err := DecodeResult(OpCreateOauthProviders, act, &r); err != nil {
			return false, err
		}
		if pos >= len(r.ProviderIDs) {
			return false, errNoIDAt(OpCreateOauthProviders, act, pos)
		}
		if err := json.Unmarshal(act.Intent[OpCreateOauthProviders.IntentKey], &intent); err != nil {
			return false, fmt.Errorf("%s: activity %s: decoding its intent: %w", OpCreateOauthProviders.Name, act.ID, err)
		}
		got, err := c.GetOauthProviders(ctx, GetOauthProvidersRequest{UserID: intent.UserID})
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(got.OauthProviders, func(p OauthProvider) bool { return p.ProviderID == r.ProviderIDs[pos] }), nil
	},
	OpCreatePrivateKeyTag.Name: func(ctx context.Context, c *Client, act *Activity, _ int) (bool, error) {
		var r CreatePrivateKeyTagResult
		if err := DecodeResult(OpCreatePrivateKeyTag, act, &r); err != nil {
			return false, err
		}
		got, err := c.ListPrivateKeyTags(ctx, ListPrivateKeyTagsRequest{})
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(got.PrivateKeyTags, func(t Tag) bool { return t.TagID == r.PrivateKeyTagID }), nil
	},
	OpCreateWebhookEndpoint.Name: func(ctx context.Context, c *Client, act *Activity, _ int) (bool, error) {
		var r WebhookEndpointResult
		if err := DecodeResult(OpCreateWebhookEndpoint, act, &r); err != nil {
			return false, err
		}
		got, err := c.ListWebhookEndpoints(ctx, ListWebhookEndpointsRequest{})
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(got.WebhookEndpoints, func(w WebhookEndpoint) bool { return w.EndpointID == r.EndpointID }), nil
	},
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
