"""The argocd-control-plane fleet, imported by `fleetgen import` from the Argo CD repository it
sits in. Review it, then `fleetgen build` compiles it into output/; commit both. The files it came
from are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# appsets/aws-load-balancer-controller.yaml:4: addon-aws-load-balancer-controller: no syncOption
#     CreateNamespace=true, which other Applications here have — fleetgen creates every app's
#     namespace (Fleet(create_namespaces=True)): check that is fine for this one
# appsets/aws-load-balancer-controller.yaml:17: cluster 'external-prod' stands for the clusters of
#     environment 'prod' that cluster generators select by labels no cluster Secret here has
#     (enable_aws_load_balancer_controller=true, enable_external_dns=true, enable_karpenter=true,
#     environment=prod, fleet.acme.io/cluster-name=external-prod, workloads=true): registered by
#     another tool — give it the name and server of one of them (one
#     Cluster(registration='external') each), and have that tool label their Secrets
#     fleetgen.io/env=prod as output/README.md lists
# appsets/aws-load-balancer-controller.yaml:17: cluster 'external-staging' stands for the clusters
#     of environment 'staging' that cluster generators select by labels no cluster Secret here has
#     (enable_aws_load_balancer_controller=true, enable_external_dns=true, enable_karpenter=true,
#     environment=staging, fleet.acme.io/cluster-name=external-staging, workloads=true): registered
#     by another tool — give it the name and server of one of them (one
#     Cluster(registration='external') each), and have that tool label their Secrets
#     fleetgen.io/env=staging as output/README.md lists
# appsets/aws-load-balancer-controller.yaml:28: ApplicationSet 'aws-load-balancer-controller': its
#     template reads the annotation 'ingress_class' of the clusters it selects at run time:
#     ClusterVar('ingress_class') — fleetgen reads it from each cluster Secret's annotation
#     fleetgen.io/var.ingress_class: have the tool that registers the clusters set it
# appsets/aws-load-balancer-controller.yaml:47: ApplicationSet 'aws-load-balancer-controller': its
#     template reads the annotation 'aws_cluster_name' of the clusters it selects at run time:
#     ClusterVar('aws_cluster_name') — fleetgen reads it from each cluster Secret's annotation
#     fleetgen.io/var.aws_cluster_name: have the tool that registers the clusters set it
# appsets/aws-load-balancer-controller.yaml:48: ApplicationSet 'aws-load-balancer-controller': its
#     template reads the annotation 'aws_vpc_id' of the clusters it selects at run time:
#     ClusterVar('aws_vpc_id') — fleetgen reads it from each cluster Secret's annotation
#     fleetgen.io/var.aws_vpc_id: have the tool that registers the clusters set it
# appsets/aws-load-balancer-controller.yaml:49: ApplicationSet 'aws-load-balancer-controller': its
#     template reads the label 'topology.kubernetes.io/region' of the clusters it selects at run
#     time: ClusterVar('topology.kubernetes.io.region') — fleetgen reads it from each cluster
#     Secret's annotation fleetgen.io/var.topology.kubernetes.io.region: have the tool that
#     registers the clusters set it
# appsets/external-dns.yaml:27: ApplicationSet 'external-dns': its template reads the annotation
#     'dns_zone' of the clusters it selects at run time: ClusterVar('dns_zone') — fleetgen reads it
#     from each cluster Secret's annotation fleetgen.io/var.dns_zone: have the tool that registers
#     the clusters set it
# appsets/external-dns.yaml:27: ApplicationSet 'external-dns': its template reads the name of the
#     clusters it selects at run time: ClusterVar('name') — fleetgen reads it from each cluster
#     Secret's annotation fleetgen.io/var.name: have the tool that registers the clusters set it
# appsets/external-dns.yaml:27: external-dns:
#     values.serviceAccount.annotations.eks.amazonaws.com/role-arn reads the cluster within a
#     string: left out — a ClusterVar is a whole value: give the clusters a var holding the whole
#     value and write ClusterVar(...) there
# appsets/karpenter.yaml:30: karpenter: its spec.destination.namespace reads the clusters selected
#     at run time: not mapped — fleetgen reads a cluster's vars only in Helm values and another
#     source's path; add the app by hand (per_env for what differs by environment)
# appsets/project.yaml:11: AppProject 'addons': spec.destinations permit servers fleetgen's
#     AppProject does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there
# bootstrap/addons.yaml:5: Application 'addons' not mapped (an app of apps: the Applications it
#     holds are imported, and fleetgen writes its own root Application) — check that fleetgen's
#     bootstrap.yaml (synced automatically, pruning) does what its syncPolicy did

from fleetgen import (
    App,
    Cluster,
    ClusterVar,
    Destination,
    Environment,
    Expr,
    Fleet,
    HelmChart,
    Overrides,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="argocd-control-plane",
    repo="https://github.com/acme/control-plane.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, prune=True, self_heal=True),
    environments=[
        Environment(name="staging"),
        Environment(name="prod"),
    ],
    clusters=[
        Cluster(name="external-staging", env="staging", server="https://external-staging.invalid",
                labels={
                    "enable_aws_load_balancer_controller": "true",
                    "enable_external_dns": "true",
                    "enable_karpenter": "true",
                    "environment": "staging",
                    "fleet.acme.io/cluster-name": "external-staging",
                    "workloads": "true",
                },
                registration="external",
                vars={
                    "aws_cluster_name": "<its annotation 'aws_cluster_name'>",
                    "aws_vpc_id": "<its annotation 'aws_vpc_id'>",
                    "dns_zone": "<its annotation 'dns_zone'>",
                    "ingress_class": "<its annotation 'ingress_class'>",
                    "name": "<its name>",
                    "topology.kubernetes.io.region": "<its label 'topology.kubernetes.io/region'>",
                }),
        Cluster(name="external-prod", env="prod", server="https://external-prod.invalid",
                labels={
                    "enable_aws_load_balancer_controller": "true",
                    "enable_external_dns": "true",
                    "enable_karpenter": "true",
                    "environment": "prod",
                    "fleet.acme.io/cluster-name": "external-prod",
                    "workloads": "true",
                },
                registration="external",
                vars={
                    "aws_cluster_name": "<its annotation 'aws_cluster_name'>",
                    "aws_vpc_id": "<its annotation 'aws_vpc_id'>",
                    "dns_zone": "<its annotation 'dns_zone'>",
                    "ingress_class": "<its annotation 'ingress_class'>",
                    "name": "<its name>",
                    "topology.kubernetes.io.region": "<its label 'topology.kubernetes.io/region'>",
                }),
    ],
    projects=[
        Project(name="addons",
                namespaces=["*"],
                description="Cluster add-ons of every workload cluster",
                cluster_resources=[
                    ["rbac.authorization.k8s.io", "ClusterRole"],
                    ["rbac.authorization.k8s.io", "ClusterRoleBinding"],
                ],
                destinations=[Destination(server="*", namespace="*")]),
    ],
    apps=[
        App(name="addon-aws-load-balancer-controller", project="addons", namespace="kube-system",
            chart=HelmChart(repo="https://aws.github.io/eks-charts",
                            name="aws-load-balancer-controller", version="1.11.0",
                            release_name="aws-load-balancer-controller"),
            targets=Selector(match_expressions=[
                                 Expr(key="enable_aws_load_balancer_controller", operator="In",
                                      values=["true"]),
                                 Expr(key="fleet.acme.io/cluster-name", operator="NotIn",
                                      values=["hub"]),
                             ],
                             runtime=True),
            values={
                "clusterName": ClusterVar("aws_cluster_name"),
                "vpcId": ClusterVar("aws_vpc_id"),
                "region": ClusterVar("topology.kubernetes.io.region"),
                "ingressClass": ClusterVar("ingress_class"),
                "serviceAccount": {"name": "aws-load-balancer-controller"},
            },
            per_env={"prod": Overrides(chart_version="1.10.1")}),
        App(name="external-dns", project="addons", namespace="external-dns",
            chart=HelmChart(repo="https://kubernetes-sigs.github.io/external-dns",
                            name="external-dns", version="1.15.0"),
            targets=Selector(envs=["staging", "prod"], match_labels={"enable_external_dns": "true"},
                             runtime=True),
            values={
                "txtOwnerId": ClusterVar("name"),
                "domainFilters": [ClusterVar("dns_zone")],
                "policy": "sync",
            }),
        App(name="orders", project="addons", namespace="orders",
            path="workloads/orders",
            targets=Selector(match_labels={"workloads": "true"}, runtime=True)),
        App(name="payments", project="addons", namespace="payments",
            path="workloads/payments",
            targets=Selector(match_labels={"workloads": "true"}, runtime=True)),
    ],
)
