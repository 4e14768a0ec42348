"""The program model: facts of a whole analysis unit merged into graphs the rules query."""
