package emulator

import (
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func init() {
	registerSubmit(client.OpUpdateOrganizationName,
		[]string{"organizationName"},
		func(p *client.UpdateOrganizationNameParams) *apiError {
			return checkName("parameters.organizationName", p.OrganizationName)
		},
		func(s *Server, who *caller, p *client.UpdateOrganizationNameParams) (any, *client.Status) {
			if who.SubOrg {
				org := s.st.SubOrganizations[who.OrganizationID]
				org.Name = p.OrganizationName
				s.st.SubOrganizations[who.OrganizationID] = org
			} else {
				s.st.Organization.Name = p.OrganizationName
			}
			return client.UpdateOrganizationNameResult{OrganizationID: who.OrganizationID, OrganizationName: p.OrganizationName}, nil
		})
	registerQuery(client.QueryWhoami, nil, func(s *Server, who *caller, _ *client.WhoamiRequest) (any, *apiError) {
		name := s.st.Organization.Name
		if who.SubOrg {
			name = s.st.SubOrganizations[who.OrganizationID].Name
		}
		u := s.st.userByID(who.UserID)
		return client.WhoamiResponse{OrganizationID: who.OrganizationID, OrganizationName: name, UserID: u.UserID, Username: u.UserName}, nil
	})
	registerQuery(client.QueryGetOrganizationConfigs, nil, func(s *Server, _ *caller, _ *client.GetOrganizationConfigsRequest) (any, *apiError) {
		quorum := &client.Quorum{Threshold: s.st.RootQuorum, UserIDs: []string{}}
		for _, u := range s.st.Users {
			if u.Root {
				quorum.UserIDs = append(quorum.UserIDs, u.UserID)
			}
		}
		// The emulator models no organization features.
		return client.GetOrganizationConfigsResponse{Configs: client.OrganizationConfigs{Features: []client.Feature{}, Quorum: quorum}}, nil
	})
}

// checkName refuses empty, blank or overlong names.
func checkName(field, v string) *apiError {
	switch {
	case strings.TrimSpace(v) == "":
		return errInvalid("field %s must not be empty", field)
	case len(v) > client.MaxNameBytes:
		return errInvalid("field %s is %d bytes long; the limit is %d", field, len(v), client.MaxNameBytes)
	}
	return nil
}
