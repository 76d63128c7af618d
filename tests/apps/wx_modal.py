#!/usr/bin/env python3
"""A wxPython (wxGTK 3) window whose button runs wx.MessageBox, a modal
dialog in a nested loop; the label reads the answer. A Choice to select."""
import wx


class Frame(wx.Frame):
    def __init__(self):
        super().__init__(None, title="Wx modal test")
        panel = wx.Panel(self)
        sizer = wx.BoxSizer(wx.VERTICAL)
        ask = wx.Button(panel, label="Ask")
        self.label = wx.StaticText(panel, label="not asked")
        self.choice = wx.Choice(panel, choices=["Red", "Green", "Blue"])
        self.choice.SetSelection(0)
        ask.Bind(wx.EVT_BUTTON, self.on_ask)
        for widget in (ask, self.label, self.choice):
            sizer.Add(widget, 0, wx.ALL, 4)
        panel.SetSizer(sizer)

    def on_ask(self, _event):
        answer = wx.MessageBox("Go on?", "Question", wx.OK | wx.CANCEL, self)
        self.label.SetLabel("answered OK" if answer == wx.OK else "answered Cancel")


app = wx.App()
Frame().Show()
app.MainLoop()
