# Mistakes that must be refused at plan, before anything reaches the
# service. Each run plans with one bad value and expects its variable's
# validation to fail. Each plans only the resource that reads the
# variable, so that the run is about that refusal alone, not a review of
# the kit's new policies as well.

variables {
  terraform_runner_cidrs = ["127.0.0.1/32"]
  security_webhook_url   = "https://127.0.0.1:9/security-alerts"
}

run "one_signing_approver_is_refused" {
  command = plan
  plan_options {
    target = [custody_policy.signing_quorum]
  }
  variables {
    signing_approvals = 1
  }
  expect_failures = [var.signing_approvals]
}

run "an_allowlist_without_the_runner_is_refused" {
  command = plan
  plan_options {
    target = [custody_ip_allowlist.organization]
  }
  variables {
    terraform_runner_cidrs = []
  }
  expect_failures = [var.terraform_runner_cidrs]
}

run "an_allowlist_open_to_everyone_is_refused" {
  command = plan
  plan_options {
    target = [custody_ip_allowlist.organization]
  }
  variables {
    terraform_runner_cidrs = ["0.0.0.0/0"]
  }
  expect_failures = [var.terraform_runner_cidrs]
}

run "a_runner_address_that_is_no_cidr_is_refused" {
  command = plan
  plan_options {
    target = [custody_ip_allowlist.organization]
  }
  variables {
    terraform_runner_cidrs = ["198.51.100.7"]
  }
  expect_failures = [var.terraform_runner_cidrs]
}

run "a_plain_http_webhook_is_refused" {
  command = plan
  plan_options {
    target = [custody_webhook_endpoint.security_alerts]
  }
  variables {
    security_webhook_url = "http://alerts.example.com/custody"
  }
  expect_failures = [var.security_webhook_url]
}
