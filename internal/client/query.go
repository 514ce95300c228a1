package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// OrganizationRequest is the body of the queries that name nothing but the
// organization (list_policies, whoami, ...). Each has its own alias of it.
type OrganizationRequest struct {
	OrganizationID string `json:"organizationId"`
}

// query posts req to /public/v1/query/<op> and decodes the answer. org
// points at req's organization id, which query fills with the client's
// when the caller left it empty.
func query[R any](ctx context.Context, c *Client, op Query, req any, org *string) (*R, error) {
	if *org == "" {
		*org = c.orgID
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the request: %w", op, err)
	}
	var out R
	if err := c.post(ctx, string(op), "/public/v1/query/"+string(op), body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// nonNil keeps a required list present on the wire as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
