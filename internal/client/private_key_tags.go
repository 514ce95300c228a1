package client

// CreatePrivateKeyTagParams are the parameters of create_private_key_tag.
type CreatePrivateKeyTagParams struct {
	PrivateKeyTagName string   `json:"privateKeyTagName"`
	PrivateKeyIDs     []string `json:"privateKeyIds"`
}

// CreatePrivateKeyTagResult is the result of create_private_key_tag.
type CreatePrivateKeyTagResult struct {
	PrivateKeyTagID string   `json:"privateKeyTagId"`
	PrivateKeyIDs   []string `json:"privateKeyIds"`
}

// UpdatePrivateKeyTagParams are the parameters of update_private_key_tag:
// a rename (when NewPrivateKeyTagName is set) and key additions and
// removals, in one activity.
type UpdatePrivateKeyTagParams struct {
	PrivateKeyTagID      string   `json:"privateKeyTagId"`
	NewPrivateKeyTagName string   `json:"newPrivateKeyTagName,omitempty"`
	AddPrivateKeyIDs     []string `json:"addPrivateKeyIds"`
	RemovePrivateKeyIDs  []string `json:"removePrivateKeyIds"`
}

// UpdatePrivateKeyTagResult is the result of update_private_key_tag.
type UpdatePrivateKeyTagResult struct {
	PrivateKeyTagID string `json:"privateKeyTagId"`
}

// DeletePrivateKeyTagsParams are the parameters of delete_private_key_tags.
type DeletePrivateKeyTagsParams struct {
	PrivateKeyTagIDs []string `json:"privateKeyTagIds"`
}

// DeletePrivateKeyTagsResult is the result of delete_private_key_tags.
type DeletePrivateKeyTagsResult struct {
	PrivateKeyTagIDs []string `json:"privateKeyTagIds"`
	PrivateKeyIDs    []string `json:"privateKeyIds"`
}

// Tag is a tag as stored; TagType is TAG_TYPE_PRIVATE_KEY or TAG_TYPE_USER.
type Tag struct {
	TagID     string    `json:"tagId"`
	TagName   string    `json:"tagName"`
	TagType   string    `json:"tagType"`
	CreatedAt Timestamp `json:"createdAt"`
	UpdatedAt Timestamp `json:"updatedAt"`
}

// ListPrivateKeyTagsRequest is the body of list_private_key_tags.
type ListPrivateKeyTagsRequest = OrganizationRequest

// ListPrivateKeyTagsResponse is the answer of list_private_key_tags.
type ListPrivateKeyTagsResponse struct {
	PrivateKeyTags []Tag `json:"privateKeyTags"`
}
