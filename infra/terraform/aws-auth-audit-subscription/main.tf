# eks-auth-sentinel — send ONE cluster's aws-auth audit events to onAuditEvent (who wrote aws-auth;
# README "Who wrote aws-auth"). The cluster's audit log must be on (EKS control-plane logging type
# "audit": log group /aws/eks/<cluster>/cluster, in the monitor's Region). The filter passes only
# lines naming configmaps, aws-auth and kube-system; onAuditEvent selects the writes. CloudWatch
# Logs may invoke the function only for this log group (source ARN). A log group holds at most
# two subscription filters: this one takes one of them.
#
#   module "aws_auth_audit_prod" {
#     source       = "./infra/terraform/aws-auth-audit-subscription"
#     cluster_name = "prod"
#     function_arn = "arn:aws:lambda:eu-west-1:111122223333:function:eks-auth-sentinel-prod-onAuditEvent"
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
  log_group_name = "/aws/eks/${var.cluster_name}/cluster"
  log_group_arn  = "arn:${data.aws_partition.current.partition}:logs:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:log-group:${local.log_group_name}:*"
}

resource "aws_lambda_permission" "logs" {
  statement_id_prefix = "${var.filter_name}-"
  action              = "lambda:InvokeFunction"
  function_name       = var.function_arn
  principal           = "logs.amazonaws.com"
  source_account      = data.aws_caller_identity.current.account_id
  source_arn          = local.log_group_arn
}

resource "aws_cloudwatch_log_subscription_filter" "aws_auth" {
  name            = var.filter_name
  log_group_name  = local.log_group_name
  filter_pattern  = "\"configmaps\" \"aws-auth\" \"kube-system\""
  destination_arn = var.function_arn
  depends_on      = [aws_lambda_permission.logs]
}

output "filter_name" {
  value = aws_cloudwatch_log_subscription_filter.aws_auth.name
}
