"""The orchestration core: the run loop, the protocol, policies (orchestrators), expert back ends and the registry."""
