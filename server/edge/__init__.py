"""The edge: where the server meets a socket. Connections and their frames (connection,
outbox), a player's line (lines), one ``Client`` per connection and the gateway that turns
its frames into typed requests for the desks, the answers in the order asked, the
spectators' feeds, plain HTTP, where a connection comes from (addresses) and its rate
limit. The only part of the server that holds a connection, a line or the outbox; the
gateway is the one module here that hands requests to the desks."""
