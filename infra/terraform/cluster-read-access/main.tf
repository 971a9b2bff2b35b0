# eks-auth-sentinel — give the monitor's function roles read access to ONE cluster
# (docs/eks-auth-semantics.md#read-access-for-the-monitor).
#
#   API / API_AND_CONFIG_MAP: one STANDARD access entry per role, Kubernetes group
#     `eks-auth-sentinel:readers`, no access policy (AmazonEKSViewPolicy cannot list nodes);
#   CONFIG_MAP: this module never writes aws-auth. mapRoles is one string; whoever writes it owns
#     all of it. A `kubernetes_config_map_v1_data` here would (a) with `force = true` take that
#     string over from EKS and eksctl, (b) write back what it read at plan time, dropping a node
#     role EKS added before apply, and (c) on destroy, or when switched off, apply empty data,
#     which removes the whole mapRoles key it owns: every node and user mapped there is locked
#     out. With `force = false` it fails whenever another field manager (EKS, eksctl, kubectl)
#     owns mapRoles, which is the case on every cluster with a managed node group.
#     So the entries are outputs: `aws_auth_map_roles` (to add to the Terraform or GitOps code
#     that owns aws-auth) and `aws_auth_eksctl_commands` (eksctl reads, appends and writes back
#     with the ConfigMap's resourceVersion: a concurrent edit makes it fail, not vanish). The
#     `aws_auth_maps_the_monitor` check reads aws-auth and warns until every role is mapped.
#   Both: the RBAC of infra/kubernetes/monitor-clusterrole.yaml (list nodes and
#     ec2nodeclasses and nodeclasses, get configmaps/aws-auth in kube-system) bound to that group.
#
# Needs the aws provider and a kubernetes provider configured for the cluster.
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws        = { source = "hashicorp/aws", version = ">= 5.0" }
    kubernetes = { source = "hashicorp/kubernetes", version = ">= 2.20" }
  }
}

locals {
  group         = "eks-auth-sentinel:readers"
  access_entry  = var.authentication_mode != "CONFIG_MAP"
  monitor_roles = toset(var.monitor_role_arns)
  monitor_map_roles = [for arn in var.monitor_role_arns : {
    rolearn  = arn
    username = "eks-auth-sentinel"
    groups   = [local.group]
  }]
  labels = { "app.kubernetes.io/name" = "eks-auth-sentinel" }
}

resource "aws_eks_access_entry" "monitor" {
  for_each          = local.access_entry ? local.monitor_roles : toset([])
  cluster_name      = var.cluster_name
  principal_arn     = each.value
  type              = "STANDARD"
  user_name         = "eks-auth-sentinel"
  kubernetes_groups = [local.group]
  tags              = var.tags
}

resource "kubernetes_cluster_role_v1" "reader" {
  metadata {
    name   = "eks-auth-sentinel-reader"
    labels = local.labels
  }
  rule {
    api_groups = [""]
    resources  = ["nodes"]
    verbs      = ["list"]
  }
  # IRSA: the eks.amazonaws.com/role-arn annotation of each service account (list only; never Secrets).
  rule {
    api_groups = [""]
    resources  = ["serviceaccounts"]
    verbs      = ["list"]
  }
  rule {
    api_groups = ["karpenter.k8s.aws"]
    resources  = ["ec2nodeclasses"]
    verbs      = ["list"]
  }
  rule {
    api_groups = ["eks.amazonaws.com"]
    resources  = ["nodeclasses"]
    verbs      = ["list"]
  }
}

resource "kubernetes_cluster_role_binding_v1" "reader" {
  metadata {
    name   = "eks-auth-sentinel-reader"
    labels = local.labels
  }
  role_ref {
    api_group = "rbac.authorization.k8s.io"
    kind      = "ClusterRole"
    name      = kubernetes_cluster_role_v1.reader.metadata[0].name
  }
  subject {
    api_group = "rbac.authorization.k8s.io"
    kind      = "Group"
    name      = local.group
  }
}

resource "kubernetes_role_v1" "aws_auth_reader" {
  metadata {
    name      = "eks-auth-sentinel-aws-auth-reader"
    namespace = "kube-system"
    labels    = local.labels
  }
  rule {
    api_groups     = [""]
    resources      = ["configmaps"]
    resource_names = ["aws-auth"]
    verbs          = ["get"]
  }
}

resource "kubernetes_role_binding_v1" "aws_auth_reader" {
  metadata {
    name      = "eks-auth-sentinel-aws-auth-reader"
    namespace = "kube-system"
    labels    = local.labels
  }
  role_ref {
    api_group = "rbac.authorization.k8s.io"
    kind      = "Role"
    name      = kubernetes_role_v1.aws_auth_reader.metadata[0].name
  }
  subject {
    api_group = "rbac.authorization.k8s.io"
    kind      = "Group"
    name      = local.group
  }
}

# Read-only: warns (never fails the apply) while a CONFIG_MAP cluster's aws-auth lacks a monitor role.
check "aws_auth_maps_the_monitor" {
  data "kubernetes_config_map_v1" "aws_auth" {
    metadata {
      name      = "aws-auth"
      namespace = "kube-system"
    }
  }
  assert {
    condition = local.access_entry || alltrue([
      for arn in var.monitor_role_arns : strcontains(try(data.kubernetes_config_map_v1.aws_auth.data["mapRoles"], ""), arn)
    ])
    error_message = "CONFIG_MAP cluster ${var.cluster_name}: aws-auth does not map every monitor role yet. This module never writes aws-auth: add the aws_auth_map_roles output where aws-auth is managed, or run the aws_auth_eksctl_commands output."
  }
}

output "aws_auth_map_roles" {
  description = "CONFIG_MAP clusters: the monitor's mapRoles entries, to append to aws-auth where it is managed (this module never writes it)."
  value       = yamlencode(local.monitor_map_roles)
}

output "aws_auth_eksctl_commands" {
  description = "CONFIG_MAP clusters: append each entry to aws-auth without touching the others (add --region when it is not your default)."
  value = [for arn in var.monitor_role_arns : join(" ", [
    "eksctl create iamidentitymapping --cluster ${var.cluster_name}",
    "--arn ${arn} --username eks-auth-sentinel --group ${local.group}",
  ])]
}
