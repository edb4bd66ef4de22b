"""How much a reading counts, and when to abstain: the judge's label and confidence models (``scoring``), how far an
evidence item is about the claim's subject (``topicality``) and the saved abstention threshold (``calibration``)."""
