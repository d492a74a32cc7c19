/** Flights: look up a flight or search a route; rebook a booking onto another flight. */
import type { JsonObject } from '../../judge/json-value.ts';
import { objectSchema, table, text, type Tool } from './tool.ts';

const flightLookup: Tool = {
  name: 'flight_lookup',
  description:
    'Look up a flight by flight number, or search on-time flights ' +
    'with free seats on a route (origin and/or destination).',
  inputSchema: objectSchema({
    flight_number: 'Flight number, e.g. AA123',
    origin: 'Origin airport code',
    destination: 'Destination airport code',
  }),
  run(args, context): JsonObject {
    const flights = table(context, 'flights');
    const number = text(args, 'flight_number');
    if (number) return flights[number] ?? { error: `Flight ${number} not found` };
    const origin = text(args, 'origin');
    const destination = text(args, 'destination');
    const available = Object.values(flights).filter(
      (flight) =>
        flight.status === 'on_time' &&
        (!origin || flight.origin === origin) &&
        (!destination || flight.destination === destination) &&
        (typeof flight.seats_available !== 'number' || flight.seats_available > 0),
    );
    return { available_flights: available };
  },
};

const flightRebook: Tool = {
  name: 'flight_rebook',
  description:
    'Rebook the passenger of a booking onto another flight. Moves the booking and takes a seat on the new flight.',
  inputSchema: objectSchema(
    { booking_ref: 'Booking reference, e.g. BK-5678', new_flight_number: 'Flight number to rebook onto' },
    ['booking_ref', 'new_flight_number'],
  ),
  run(args, context): JsonObject {
    const flights = table(context, 'flights');
    const ref = text(args, 'booking_ref');
    const target = text(args, 'new_flight_number');
    const next = flights[target];
    if (!next) return { error: `Flight ${target} not found` };
    const current = Object.values(flights).find((flight) => flight.booking_ref === ref);
    if (!current) return { error: `Booking ${ref} not found` };
    if (current === next) return { error: `Booking ${ref} is already on flight ${target}` };
    if (typeof next.seats_available === 'number' && next.seats_available <= 0)
      return { error: `Flight ${target} has no seats available` };
    next.booking_ref = ref;
    if (current.passenger !== undefined) next.passenger = current.passenger;
    if (typeof next.seats_available === 'number') next.seats_available -= 1;
    delete current.booking_ref;
    delete current.passenger;
    current.rebooked_to = target;
    return {
      status: 'confirmed',
      booking_ref: ref,
      new_flight: next as JsonObject,
      message: `Successfully rebooked to ${target}`,
    };
  },
};

export const flightTools: Tool[] = [flightLookup, flightRebook];
