"""Expert back ends: how a registry entry turns into something that answers a chat with images."""
