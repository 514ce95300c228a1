package client

// UpdateOrganizationNameParams are the parameters of update_organization_name.
type UpdateOrganizationNameParams struct {
	OrganizationName string `json:"organizationName"`
}

// UpdateOrganizationNameResult is the result of update_organization_name.
type UpdateOrganizationNameResult struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
}

// WhoamiRequest is the body of whoami.
type WhoamiRequest = OrganizationRequest

// WhoamiResponse says which organization and user the key belongs to.
type WhoamiResponse struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
	UserID           string `json:"userId"`
	Username         string `json:"username"`
}
