/* placeholder: being written */
typedef int tandem_placeholder_model_load;
