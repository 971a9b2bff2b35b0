# eks-auth-sentinel — give the monitor's function roles read access to ONE cluster
# (docs/eks-auth-semantics.md#read-access-for-the-monitor).
#
#   API / API_AND_CONFIG_MAP: one STANDARD access entry per role, Kubernetes group
#     `eks-auth-sentinel:readers`, no access policy (AmazonEKSViewPolicy cannot list nodes);
#   CONFIG_MAP: aws-auth mapRoles entries — only when `manage_aws_auth = true`, and then
#     `existing_map_roles` must hold every other entry of mapRoles (this writes the whole key,
#     as terraform-aws-eks does); otherwise the entries are in the `aws_auth_map_roles` output.
#   Both: the RBAC of infra/kubernetes/monitor-clusterrole.yaml (list nodes and
#     ec2nodeclasses, get configmaps/aws-auth in kube-system) bound to that group.
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

resource "kubernetes_config_map_v1_data" "aws_auth" {
  count = !local.access_entry && var.manage_aws_auth ? 1 : 0
  metadata {
    name      = "aws-auth"
    namespace = "kube-system"
  }
  data = {
    mapRoles = yamlencode(concat(var.existing_map_roles, local.monitor_map_roles))
  }
  force = true
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
  rule {
    api_groups = ["karpenter.k8s.aws"]
    resources  = ["ec2nodeclasses"]
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

output "aws_auth_map_roles" {
  description = "CONFIG_MAP clusters: the mapRoles entries of the monitor (add them yourself unless manage_aws_auth)."
  value       = yamlencode(local.monitor_map_roles)
}
