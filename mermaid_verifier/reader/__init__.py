"""The stance reader: the model that reads a claim against one evidence item (``stance``) and the checks of its
file and of the machine it runs on (``model_check``). What it is fed and answers is ``mermaid_verifier.stance_format``,
beside the records: the records and the training code take it with the standard library alone."""
