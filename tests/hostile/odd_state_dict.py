"""Appended to the solution of exercise 6: the module's state_dict() returns a list, not a dict."""


class MultiHeadAttention(MultiHeadAttention):  # noqa: F821 - the solution's class, above
    def state_dict(self, *args, **kwargs):
        return [1, 2, 3]
