<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE" sourcelanguage="en_US">
<context>
    <name>Order</name>
    <message>
        <source>Send order</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gift wrap</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
