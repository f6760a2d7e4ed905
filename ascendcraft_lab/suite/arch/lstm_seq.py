"""An nn.LSTM over a sequence (zero initial state): the output of every step."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.rnn = nn.LSTM(input_size, hidden_size)

    def forward(self, x: torch.Tensor):
        out, _ = self.rnn(x)
        return out


seq_len = 8
batch_size = 16
input_size = 40
hidden_size = 48
TAIL = {"seq_len": 3, "batch_size": 5, "input_size": 19, "hidden_size": 21}


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
