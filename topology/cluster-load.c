/* placeholder: being written */
typedef int tandem_placeholder_cluster_load;
