/* placeholder: being written */
typedef int tandem_placeholder_plan_args;
