# eks-auth-sentinel — forward the EKS CloudTrail calls of one Region to the default event bus of
# the monitor's home Region. Instantiate once per Region that has clusters (not the home Region),
# each with that Region's provider — and in us-east-1 in any case, where IAM's records arrive:
#
#   module "forward_us_east_1" {
#     source      = "./infra/terraform/forward-eks-events"
#     providers   = { aws = aws.us_east_1 }
#     home_region = "eu-west-1"
#   }
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = { source = "hashicorp/aws", version = ">= 5.0" }
  }
}

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  target_bus_arn = "arn:${data.aws_partition.current.partition}:events:${var.home_region}:${data.aws_caller_identity.current.account_id}:event-bus/default"
  # docs/design.md#cloudtrail-events-handled: the EKS write calls the monitor predicts from.
  event_names = [
    "DeleteNodegroup",
    "CreateNodegroup",
    "CreateFargateProfile",
    "DeleteFargateProfile",
    "CreateAccessEntry",
    "DeleteAccessEntry",
    "UpdateAccessEntry",
    "AssociateAccessPolicy",
    "DisassociateAccessPolicy",
    "UpdateClusterConfig",
    "CreateCertificateAuthority",
    "ActivateCertificateAuthority",
    "CreatePodIdentityAssociation",
    "UpdatePodIdentityAssociation",
    "DeletePodIdentityAssociation",
    "UpdateAddon",
    "DeleteAddon",
  ]
  # IAM is global: CloudTrail delivers its records to EventBridge in us-east-1 only, so the
  # module instance of us-east-1 forwards them too.
  iam_event_names = [
    "DeleteRole",
    "UpdateAssumeRolePolicy",
    "DetachRolePolicy",
    "DeleteRolePolicy",
    "DeleteOpenIDConnectProvider",
  ]
  forward_iam = data.aws_region.current.name == "us-east-1"
}

resource "aws_iam_role" "forward" {
  name_prefix = "${var.name_prefix}-fwd-"
  description = "EventBridge forwards EKS CloudTrail events to the eks-auth-sentinel home Region"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "events.amazonaws.com" }
      Action    = "sts:AssumeRole"
      Condition = { StringEquals = { "aws:SourceAccount" = data.aws_caller_identity.current.account_id } }
    }]
  })
  tags = var.tags
}

resource "aws_iam_role_policy" "forward" {
  name = "put-events-home-bus"
  role = aws_iam_role.forward.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "events:PutEvents", Resource = local.target_bus_arn }]
  })
}

resource "aws_cloudwatch_event_rule" "forward" {
  name_prefix = "${var.name_prefix}-fwd-"
  description = "EKS write calls (successful only) → eks-auth-sentinel in ${var.home_region}"
  event_pattern = jsonencode({
    source        = ["aws.eks"]
    "detail-type" = ["AWS API Call via CloudTrail"]
    detail = {
      eventSource = ["eks.amazonaws.com"]
      eventName   = local.event_names
      errorCode   = [{ exists = false }]
    }
  })
  tags = var.tags

  lifecycle {
    precondition {
      condition     = data.aws_region.current.name != var.home_region
      error_message = "Do not forward from the home Region itself: its own rule already receives these events."
    }
  }
}

resource "aws_cloudwatch_event_rule" "forward_iam" {
  count       = local.forward_iam ? 1 : 0
  name_prefix = "${var.name_prefix}-fwd-iam-"
  description = "IAM calls that break Pod Identity or IRSA (successful only) → eks-auth-sentinel in ${var.home_region}"
  event_pattern = jsonencode({
    source        = ["aws.iam"]
    "detail-type" = ["AWS API Call via CloudTrail"]
    detail = {
      eventSource = ["iam.amazonaws.com"]
      eventName   = local.iam_event_names
      errorCode   = [{ exists = false }]
    }
  })
  tags = var.tags
}

resource "aws_cloudwatch_event_target" "home_bus_iam" {
  count    = local.forward_iam ? 1 : 0
  rule     = aws_cloudwatch_event_rule.forward_iam[0].name
  arn      = local.target_bus_arn
  role_arn = aws_iam_role.forward.arn
  retry_policy {
    maximum_event_age_in_seconds = 3600
    maximum_retry_attempts       = 10
  }
  dead_letter_config {
    arn = aws_sqs_queue.dead_letters.arn
  }
}

resource "aws_sqs_queue" "dead_letters" {
  name_prefix               = "${var.name_prefix}-fwd-dlq-"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
  tags                      = var.tags
}

resource "aws_sqs_queue_policy" "dead_letters" {
  queue_url = aws_sqs_queue.dead_letters.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "events.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = aws_sqs_queue.dead_letters.arn
      Condition = { ArnEquals = { "aws:SourceArn" = concat([aws_cloudwatch_event_rule.forward.arn], aws_cloudwatch_event_rule.forward_iam[*].arn) } }
    }]
  })
}

resource "aws_cloudwatch_event_target" "home_bus" {
  rule     = aws_cloudwatch_event_rule.forward.name
  arn      = local.target_bus_arn
  role_arn = aws_iam_role.forward.arn
  retry_policy {
    maximum_event_age_in_seconds = 3600
    maximum_retry_attempts       = 10
  }
  dead_letter_config {
    arn = aws_sqs_queue.dead_letters.arn
  }
}

output "rule_arn" {
  value = aws_cloudwatch_event_rule.forward.arn
}

output "target_bus_arn" {
  value = local.target_bus_arn
}
